print("jetsam-bench: not written yet")
