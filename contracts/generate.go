package contracts

//go:generate node build.js
//go:generate go tool abigen --v2 --combined-json artifacts/parley.json --pkg bindings --out bindings/bindings.go
//go:generate go tool abigen --v2 --combined-json artifacts/testing.json --pkg testbindings --out testbindings/testbindings.go
