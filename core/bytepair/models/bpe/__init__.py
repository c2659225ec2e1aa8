"""TODO models.bpe"""
