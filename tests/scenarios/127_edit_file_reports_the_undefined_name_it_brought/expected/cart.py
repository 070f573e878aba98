TAX = 0.2


def total(prices):
    return sum(prices) * (1 + tax)
