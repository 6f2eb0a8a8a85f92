def sum_to(n):
    """Return 1 + 2 + ... + n."""
    total = 0
    for i in range(n):
        total += i
    return total


def square(x):
    return x * x
