package quotetoken

// sha256block.go is SHA-256's compression function unrolled by blockSource
// (blockgen_test.go).
//go:generate go test -run ^TestGeneratedSHA256Block$ -update
