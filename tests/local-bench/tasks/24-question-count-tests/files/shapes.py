import math


def area_circle(r):
    return math.pi * r * r


def area_square(s):
    return s * s


def area_rect(w, h):
    return w * h
