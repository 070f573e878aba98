class Calculator:
    def add(self, a, b):
        return a + b

    def div(self, a, b):
        if b == 0:
            raise ZeroDivisionError("b is 0")
        result = a / b
        return result


def helper():
    return 1
