module github.com/watchlog/watchlog/packages/go

go 1.23
