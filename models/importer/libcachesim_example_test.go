package importer_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/tailbound/tailbound/models/importer"
)

// A libCacheSim csv trace read with its own option string: each line is a
// request of one 16-token block whose hash is the object id.
func ExampleNewLibCacheSimCSV() {
	p, err := importer.ParseCSVParams("time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false,obj-id-is-num=1")
	if err != nil {
		fmt.Println(err)
		return
	}
	src := importer.NewLibCacheSimCSV(strings.NewReader("10,42,4096\n11,7,512\n12,42,4096\n"), "t.csv", p, 16)
	for {
		r, err := src.Next()
		if err == io.EOF {
			break
		}
		fmt.Println(r.Time, r.Input, r.Hashes)
	}
	// Output:
	// 10 16 [42]
	// 11 16 [7]
	// 12 16 [42]
}

// An oracleGeneral trace of two records, written and read back.
func ExampleNewOracleGeneral() {
	var buf bytes.Buffer
	importer.WriteOracleGeneral(&buf, 0, 5, 100, 1)
	importer.WriteOracleGeneral(&buf, 3, 5, 100, -1)
	src := importer.NewOracleGeneral(&buf, "t.oracleGeneral", 1)
	for {
		r, err := src.Next()
		if err == io.EOF {
			break
		}
		fmt.Println(r.Index, r.Time, r.Hashes)
	}
	// Output:
	// 0 0 [5]
	// 1 3 [5]
}
