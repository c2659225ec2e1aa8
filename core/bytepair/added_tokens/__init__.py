"""TODO added_tokens"""
