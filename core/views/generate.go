package views

// views.lz4 is the three documents made from src/.
//go:generate go run ../../build/views -src src -out views.lz4
