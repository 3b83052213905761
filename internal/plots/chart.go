package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Point is one point of a series.
type Point struct{ X, Y float64 }

// Series is one line of a chart, or one group of bars.
type Series struct {
	Name   string
	Points []Point
}

// Axis is how a chart draws one of its axes.
type Axis struct {
	Label string
	// Log draws the axis on a log scale (every value must be positive).
	Log bool
	// AtData puts the ticks at the data's distinct values (1, 2, 4, 8,
	// 16 workers) rather than at round ones.
	AtData bool
	// FromZero starts a linear axis at 0 rather than at the smallest
	// value.
	FromZero bool
	// Format writes a tick's label; nil writes the number.
	Format func(float64) string
}

// Default sizes of a chart's plot area; the legend and the caption are
// drawn below it and add to the height.
const (
	DefaultWidth  = 16 * vg.Centimeter
	DefaultHeight = 10 * vg.Centimeter
)

// LineChart is a chart of lines, one per series, with a legend and a
// caption below the plot. Series of up to maxMarked points mark their
// points too.
type LineChart struct {
	Title   string
	X, Y    Axis
	Series  []Series
	Caption []string // lines of the caption: what was measured, and Meta.Caption
	// Width and Height of the plot area (0: DefaultWidth, DefaultHeight).
	Width, Height vg.Length
}

const maxMarked = 40

// TimeSeries is a line chart over the seconds of a run (placer simulate
// --report: utilization, latency), on linear axes, the values from 0.
func TimeSeries(title, yLabel string, series []Series, caption ...string) *LineChart {
	return &LineChart{
		Title:   title,
		X:       Axis{Label: "seconds into the run", FromZero: true},
		Y:       Axis{Label: yLabel, FromZero: true},
		Series:  series,
		Caption: caption,
	}
}

// WriteSVG draws the chart as SVG on w.
func (c *LineChart) WriteSVG(w io.Writer) error { return c.write(w, svgCanvas) }

func (c *LineChart) write(w io.Writer, newCanvas canvasMaker) error {
	if len(c.Series) == 0 {
		return fmt.Errorf("plots: chart %q has no series", c.Title)
	}
	p, _ := newPlot(c.Title, c.X.Label, c.Y.Label)
	leg := newLegend()
	var xs, ys []float64
	for i, s := range c.Series {
		if len(s.Points) == 0 {
			return fmt.Errorf("plots: chart %q: series %q has no points", c.Title, s.Name)
		}
		pts := slices.Clone(s.Points)
		slices.SortStableFunc(pts, func(a, b Point) int { return cmpFloat(a.X, b.X) })
		xys := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			if bad(pt.X, c.X.Log) || bad(pt.Y, c.Y.Log) {
				return fmt.Errorf("plots: chart %q: series %q: point (%g, %g) cannot be drawn%s", c.Title, s.Name, pt.X, pt.Y, logNote(c))
			}
			xys[j] = plotter.XY{X: c.X.scaled(pt.X), Y: c.Y.scaled(pt.Y)}
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("plots: chart %q: series %q: %w", c.Title, s.Name, err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i / 7) // solid for the first seven colours
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if len(pts) <= maxMarked {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("plots: chart %q: series %q: %w", c.Title, s.Name, err)
			}
			sc.Color = line.Color
			sc.Shape = plotutil.Shape(i)
			sc.Radius = vg.Points(2.5)
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		leg.Add(s.Name, thumbs...)
	}
	setAxis(&p.X, c.X, xs)
	setAxis(&p.Y, c.Y, ys)
	return render(w, newCanvas, p, leg, c.Caption, c.Width, c.Height)
}

// BarChart is a chart of bars: for each category (a host, a group of
// hosts, a moment) one bar per series side by side, or one bar of the
// series stacked (the capacity picture: used, then placed, then free).
// Series[i].Points[j].Y is the height of series i's bar at category j
// (X is not used).
type BarChart struct {
	Title      string
	XLabel     string
	Y          Axis // Log is not supported; bars start at 0
	Categories []string
	Series     []Series
	Stacked    bool
	Caption    []string
	// MaxLabels bounds the category labels drawn (0: 20); with more
	// categories every k-th is labelled.
	MaxLabels     int
	Width, Height vg.Length
}

// WriteSVG draws the chart as SVG on w.
func (c *BarChart) WriteSVG(w io.Writer) error { return c.write(w, svgCanvas) }

func (c *BarChart) write(w io.Writer, newCanvas canvasMaker) error {
	if len(c.Series) == 0 || len(c.Categories) == 0 {
		return fmt.Errorf("plots: bar chart %q has no series or no categories", c.Title)
	}
	if c.Y.Log {
		return fmt.Errorf("plots: bar chart %q: a log scale is not supported for bars", c.Title)
	}
	p, grid := newPlot(c.Title, c.XLabel, c.Y.Label)
	grid.Vertical.Color = nil // the categories need no lines
	leg := newLegend()
	width := c.Width
	if width == 0 {
		width = DefaultWidth
	}
	// The bars of a category share 80% of its slot of the data area
	// (about the width less the y axis).
	slot := (width - vg.Centimeter*2) / vg.Length(len(c.Categories))
	barW := slot * 0.8
	if !c.Stacked {
		barW /= vg.Length(len(c.Series))
	}
	var below *plotter.BarChart
	var ys []float64
	var stack []float64
	for i, s := range c.Series {
		if len(s.Points) != len(c.Categories) {
			return fmt.Errorf("plots: bar chart %q: series %q has %d values for %d categories", c.Title, s.Name, len(s.Points), len(c.Categories))
		}
		vals := make(plotter.Values, len(s.Points))
		for j, pt := range s.Points {
			if math.IsNaN(pt.Y) || math.IsInf(pt.Y, 0) {
				return fmt.Errorf("plots: bar chart %q: series %q: value %g at %q cannot be drawn", c.Title, s.Name, pt.Y, c.Categories[j])
			}
			vals[j] = pt.Y
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return fmt.Errorf("plots: bar chart %q: series %q: %w", c.Title, s.Name, err)
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		if c.Stacked {
			if below != nil {
				bars.StackOn(below)
			}
			below = bars
			if stack == nil {
				stack = make([]float64, len(vals))
			}
			for j, v := range vals {
				stack[j] += v
			}
		} else {
			bars.Offset = barW * (vg.Length(i) - vg.Length(len(c.Series)-1)/2)
			ys = append(ys, vals...)
		}
		p.Add(bars)
		leg.Add(s.Name, bars)
	}
	ys = append(ys, stack...)
	y := c.Y
	y.FromZero = true
	setAxis(&p.Y, y, ys)
	p.X.Min, p.X.Max = -0.5, float64(len(c.Categories))-0.5
	p.X.Tick.Marker = categoryTicks(c.Categories, c.MaxLabels)
	return render(w, newCanvas, p, leg, c.Caption, c.Width, c.Height)
}

func categoryTicks(cats []string, max int) plot.ConstantTicks {
	if max <= 0 {
		max = 20
	}
	every := (len(cats) + max - 1) / max
	var ticks plot.ConstantTicks
	for i, name := range cats {
		t := plot.Tick{Value: float64(i)}
		if i%every == 0 {
			t.Label = name
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func bad(v float64, log bool) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0)
}

func logNote(c *LineChart) string {
	if c.X.Log || c.Y.Log {
		return " (a log axis needs positive values)"
	}
	return ""
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

var (
	captionColor = color.Gray{Y: 0x55}
	gridColor    = color.Gray{Y: 0xdd}
)

func newPlot(title, xLabel, yLabel string) (*plot.Plot, *plotter.Grid) {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	grid := plotter.NewGrid()
	grid.Vertical.Color = gridColor
	grid.Horizontal.Color = gridColor
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal.Width = vg.Points(0.5)
	p.Add(grid)
	return p, grid
}

func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.ThumbnailWidth = vg.Points(24)
	leg.Padding = vg.Points(2)
	return leg
}

// setAxis applies a to ax, over the values vs. A log axis is drawn as a
// linear axis over log10 of the values (the points are transformed by
// scaled), with its ticks at log10 of round values labelled with the
// values: gonum's LogScale places a centred axis label by the linear
// middle of the range, far off the log axis's middle, and pads the plot
// for it.
func setAxis(ax *plot.Axis, a Axis, vs []float64) {
	lo, hi := slices.Min(vs), slices.Max(vs)
	format := a.Format
	if format == nil {
		format = FormatNumber
	}
	var ticks []plot.Tick
	switch {
	case a.Log:
		// Widen to the 1-2-5 values around the data, so that the
		// ticks at either end are drawn.
		lo, hi = step125Down(lo), step125Up(hi)
		if lo == hi {
			lo, hi = lo/2, hi*2
		}
		ticks = logTicks(lo, hi, format)
	default:
		if a.FromZero && lo > 0 {
			lo = 0
		}
		if lo == hi {
			lo, hi = lo-1, hi+1
		}
		ticks, lo, hi = linearTicks(lo, hi, format)
	}
	if a.AtData {
		// The data's own range, with a margin, so that the first and
		// last ticks are the data's.
		lo, hi = slices.Min(vs), slices.Max(vs)
		m := (a.scaled(hi) - a.scaled(lo)) * 0.04
		if m == 0 {
			m = 0.5
		}
		lo, hi = a.unscaled(a.scaled(lo)-m), a.unscaled(a.scaled(hi)+m)
		vs = slices.Clone(vs)
		slices.Sort(vs)
		ticks = ticks[:0]
		for _, v := range slices.Compact(vs) {
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		}
	}
	for i := range ticks {
		ticks[i].Value = a.scaled(ticks[i].Value)
	}
	ax.Tick.Marker = plot.ConstantTicks(ticks)
	ax.Min, ax.Max = a.scaled(lo), a.scaled(hi)
}

// scaled is where v lies on the axis: log10(v) on a log axis.
func (a Axis) scaled(v float64) float64 {
	if a.Log {
		return math.Log10(v)
	}
	return v
}

// unscaled is the inverse of scaled.
func (a Axis) unscaled(v float64) float64 {
	if a.Log {
		return math.Pow(10, v)
	}
	return v
}

// step125Down is the largest of 1, 2, 5 times a power of ten at most v.
func step125Down(v float64) float64 {
	e := math.Pow10(int(math.Floor(math.Log10(v))))
	for _, m := range []float64{5, 2, 1} {
		if m*e <= v*(1+1e-9) {
			return m * e
		}
	}
	return e
}

// step125Up is the smallest of 1, 2, 5 times a power of ten at least v.
func step125Up(v float64) float64 {
	e := math.Pow10(int(math.Floor(math.Log10(v))))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v*(1-1e-9) {
			return m * e
		}
	}
	return 10 * e
}

// linearTicks are about six labelled ticks from lo to hi at a round step
// (1, 2, 2.5 or 5 times a power of ten), and the range widened to the
// ticks around it.
func linearTicks(lo, hi float64, format func(float64) string) ([]plot.Tick, float64, float64) {
	raw := (hi - lo) / 6
	e := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * e
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*e >= raw {
			step = m * e
			break
		}
	}
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	var ticks []plot.Tick
	for k := first; k <= last; k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
	}
	return ticks, first * step, last * step
}

// logTicks are the ticks of a log axis from lo to hi at 1 to 9 times
// each power of ten: all labelled when the axis spans at most a decade; 1,
// 2 and 5 labelled up to three decades; else the powers of ten.
func logTicks(lo, hi float64, format func(float64) string) []plot.Tick {
	var ticks []plot.Tick
	span := math.Log10(hi / lo)
	for k := int(math.Floor(math.Log10(lo))); math.Pow10(k) <= hi*(1+1e-9); k++ {
		e := math.Pow10(k)
		for m := 1; m < 10; m++ {
			v := float64(m) * e
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || span <= 1+1e-9 || (span <= 3 && (m == 2 || m == 5)) {
				tk.Label = format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// canvasMaker makes a canvas of a size: SVG for the charts; tests may
// draw PNG to look at them.
type canvasMaker func(w, h vg.Length) vg.CanvasWriterTo

func svgCanvas(w, h vg.Length) vg.CanvasWriterTo { return vgsvg.New(w, h) }

// render draws p, its legend below it and the caption below that on one
// canvas: the legend and the caption never cover the data.
func render(w io.Writer, newCanvas canvasMaker, p *plot.Plot, leg plot.Legend, caption []string, width, height vg.Length) error {
	if width == 0 {
		width = DefaultWidth
	}
	if height == 0 {
		height = DefaultHeight
	}
	pad := vg.Points(6)
	capSty := text.Style{
		Color:   captionColor,
		Font:    font.From(plot.DefaultFont, vg.Points(8)),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
	// Wrapped with a fifth of the width to spare: an SVG viewer without
	// the font measured here draws the text in a wider one.
	capText := strings.Join(wrap(capSty, caption, (width-2*pad)*4/5), "\n")
	var capH vg.Length
	if capText != "" {
		capH = capSty.Height(capText) + pad
	}
	legH := leg.Rectangle(draw.Canvas{}).Size().Y
	if legH > 0 {
		legH += pad
	}
	canvas := newCanvas(width, height+legH+capH)
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(draw.Crop(dc, 0, 0, legH+capH, 0))
	if legH > 0 {
		legC := draw.Crop(dc, pad, -pad, capH, -height)
		leg.Draw(legC)
	}
	if capText != "" {
		dc.FillText(capSty, vg.Point{X: dc.Min.X + pad, Y: dc.Min.Y + pad/2}, capText)
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("plots: writing the chart: %w", err)
	}
	return nil
}

// wrap breaks each of lines at spaces so that none is wider than width in
// sty; a line's continuations are indented.
func wrap(sty text.Style, lines []string, width vg.Length) []string {
	var out []string
	for _, line := range lines {
		cur := ""
		for _, w := range strings.Fields(line) {
			next := w
			if cur != "" {
				next = cur + " " + w
			}
			if cur != "" && sty.Width(next) > width {
				out = append(out, cur)
				next = "    " + w
			}
			cur = next
		}
		out = append(out, cur)
	}
	return out
}

// ErrNoData is returned by the chart builders when their input has
// nothing they draw.
var ErrNoData = errors.New("plots: no data for this chart")
