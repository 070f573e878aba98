def nightly():
    run_job("backup")
    notify("done")


def hourly():
    run_job("backup")
