import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  color: string;
  values: Array<number | null>;
  points?: boolean;
  bars?: boolean;
}

/** A uPlot time-series chart: x in seconds since the epoch, one line per series. It resizes with
 *  its container and is redrawn in place when the data change (no React re-render of the canvas). */
export const TimeChart = ({
  x,
  series,
  height = 220,
  label,
  yLabel,
}: {
  x: number[];
  series: Series[];
  height?: number;
  label: string;
  yLabel?: string;
}) => {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => `${s.label}:${s.color}:${s.points ?? false}:${s.bars ?? false}`).join('|');

  // The chart is rebuilt only when its shape changes; data changes go through setData below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above: rebuilt on a change of shape only
  useEffect(() => {
    const el = host.current;
    if (el === null) return;
    const ink = getComputedStyle(el).color;
    const opts: Options = {
      width: Math.max(200, el.clientWidth),
      height,
      scales: { x: { time: true } },
      // A canvas resolves 'currentColor' to black: the page's text colour, read once, keeps the
      // axes readable in dark mode.
      axes: [
        { stroke: ink, grid: { stroke: 'rgba(128,128,128,.2)' } },
        { stroke: ink, grid: { stroke: 'rgba(128,128,128,.2)' }, label: yLabel, size: 60 },
      ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: s.bars ? s.color : undefined,
          paths: s.bars ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
          points: { show: s.points ?? false, size: 7, fill: s.color },
        })),
      ],
      legend: { live: true },
    };
    plot.current = new uPlot(opts, [x, ...series.map((s) => s.values)] as AlignedData, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, height, yLabel]);

  useEffect(() => {
    plot.current?.setData([x, ...series.map((s) => s.values)] as AlignedData);
  }, [x, series]);

  return (
    <figure className="chart" role="img" aria-label={label}>
      <div ref={host} data-points={x.length} />
    </figure>
  );
};
