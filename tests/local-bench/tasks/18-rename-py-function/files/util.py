def calc_total(prices):
    """Sum a list of prices."""
    return sum(prices)


def with_tax(amount, rate=0.2):
    return round(amount * (1 + rate), 2)
