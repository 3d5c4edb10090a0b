"""Composed games: feature games defined by a model file alone."""
