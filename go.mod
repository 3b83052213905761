module github.com/placer/placer

go 1.26
