def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("division by zero")
    return a // b


def mean(values):
    return divide(sum(values), len(values))
