log('a')
log('b')
print('c')
