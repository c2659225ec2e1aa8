"""TODO llm"""
