"""TODO pipeline"""
