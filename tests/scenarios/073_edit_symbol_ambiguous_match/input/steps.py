def steps():
    step()
    log()
    done()
    step()
    log()
    done()
    return 0
