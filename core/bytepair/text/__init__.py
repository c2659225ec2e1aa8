"""TODO text"""
