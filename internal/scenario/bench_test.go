package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecode decodes a scenario of oracle-generated hosts (those of
// testdata/gen-rich-1.json, repeated under new names).
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("testdata", "gen-rich-1.json"))
			if err != nil {
				b.Fatal(err)
			}
			s, err := Decode(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			proto := s.Cloud.Hosts
			s.Cloud.Hosts = nil
			for i := 0; i < n; i++ {
				h := proto[i%len(proto)]
				h.Host, h.Node, h.UUID = fmt.Sprintf("host-%06d", i), "", ""
				s.Cloud.Hosts = append(s.Cloud.Hosts, h)
			}
			var doc bytes.Buffer
			if err := EncodeScenario(&doc, s); err != nil {
				b.Fatal(err)
			}
			if got, err := Decode(bytes.NewReader(doc.Bytes())); err != nil || len(got.Cloud.Hosts) != n {
				b.Fatalf("decode: %v", err)
			}
			b.SetBytes(int64(doc.Len()))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Decode(bytes.NewReader(doc.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
