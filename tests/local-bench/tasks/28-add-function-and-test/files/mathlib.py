def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def is_even(n):
    return n % 2 == 0
