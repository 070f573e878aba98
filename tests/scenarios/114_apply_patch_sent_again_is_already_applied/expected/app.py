def f():
    return 1

def g():
    return 2

def h():
    return 3
