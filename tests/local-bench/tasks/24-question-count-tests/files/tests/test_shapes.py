import math
import shapes


def helper_close(a, b):
    return abs(a - b) < 1e-9


def test_circle():
    assert helper_close(shapes.area_circle(1), math.pi)


def test_square():
    assert shapes.area_square(3) == 9


def test_rect():
    assert shapes.area_rect(2, 5) == 10


# def test_triangle():
#     assert shapes.area_triangle(2, 2) == 2


def test_zero():
    assert shapes.area_square(0) == 0
    assert shapes.area_rect(0, 4) == 0
