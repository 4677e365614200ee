module github.com/watchlog/watchlog/bench/apps/sdk-go

go 1.23

require github.com/watchlog/watchlog/packages/go v0.0.0

replace github.com/watchlog/watchlog/packages/go => ../../../packages/go
