import math


class Circle:
    """A circle."""

    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return math.pi * self.r**2


def unit():
    return Circle(1)
