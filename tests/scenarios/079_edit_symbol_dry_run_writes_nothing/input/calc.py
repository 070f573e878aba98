class Calculator:
    def add(self, a, b):
        return a + b

    def div(self, a, b):
        result = a / b
        return result


def helper():
    return 1
