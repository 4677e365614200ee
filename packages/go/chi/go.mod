module github.com/watchlog/watchlog/packages/go/chi

go 1.24

require github.com/watchlog/watchlog/packages/go v0.0.0

require github.com/go-chi/chi/v5 v5.5.0

replace github.com/watchlog/watchlog/packages/go => ../
