class Circle:
    def area(self):
        return self.size * 2


class Square:
    def area(self):
        return self.size * 2
