"""TODO models"""
