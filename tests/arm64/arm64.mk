# test-arm64: owned by the QEMU arm64 harness (tests/arm64/).
.PHONY: test-arm64
test-arm64:
	@echo "test-arm64: not written yet"
