bar = 1
bar += bar
print(bar)
