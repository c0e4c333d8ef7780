# bench: owned by tests/bench/.
.PHONY: bench
bench:
	@echo "bench: not written yet"
