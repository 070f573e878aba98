DEBUG = False
LEVEL = 2
