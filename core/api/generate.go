package api

// openapi.lz4 is openapi.json compacted and packed, as the module embeds it.
//go:generate go run ../../build/openapimin -src openapi.json -out openapi.lz4
