foo = 1
foo += foo
print(foo)
