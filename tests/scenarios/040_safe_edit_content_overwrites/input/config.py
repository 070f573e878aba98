DEBUG = True
