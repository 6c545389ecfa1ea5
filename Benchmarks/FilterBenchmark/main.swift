print("filter benchmark: not built yet")
