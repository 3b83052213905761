package plots

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// -preview DIR draws the test charts as PNG into DIR, to look at them.
var preview = flag.String("preview", "", "draw the test charts as PNG into `DIR`")

func pngCanvas(w, h vg.Length) vg.CanvasWriterTo {
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
}

// previewChart draws c as PNG into -preview's directory, when given.
func previewChart(t *testing.T, name string, c interface {
	write(w io.Writer, nc canvasMaker) error
}) {
	t.Helper()
	if *preview == "" {
		return
	}
	f, err := os.Create(filepath.Join(*preview, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.write(f, pngCanvas); err != nil {
		t.Fatal(err)
	}
}
