package rental

// bundled_gen.go is the catalog of data/ as a Go literal; the generator also validates
// data/ and fails on a bad file.
//go:generate go run ../../build/checksnapshot -go bundled_gen.go
