foo = 1
