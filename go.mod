module github.com/campervan/agent-api

go 1.25.0

require (
	github.com/syumai/workers v0.33.0
	github.com/tetratelabs/wazero v1.12.0
	github.com/tidwall/gjson v1.20.0
)

require (
	github.com/shopspring/decimal v1.6.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	golang.org/x/sys v0.44.0 // indirect
)
