def add(a: int, b: int):
    return (b + a)


def sub(a: int, b: int):
    return a - b
