import os


def total(prices):
    return sum(prices) * (1 + tax)
