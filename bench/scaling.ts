/**
 * The scaling run's figures: one point per case and phase (cost per project), and its SVG chart.
 */
import type { PhaseName } from './minimum.ts';
import type { CaseResult, ScalingPoint } from './results.ts';
import { renderLineChart } from './svg-chart.ts';

/** The scaling points of a case: one per phase. */
export function scalingPoints(c: CaseResult): ScalingPoint[] {
  return c.phases.map((p) => ({
    projects: c.projects,
    alerts: c.alerts,
    phase: p.phase,
    wallMs: p.wallMs,
    msPerProject: p.wallMs / c.projects,
    ...(p.cpuMs === undefined ? {} : { cpuMsPerProject: p.cpuMs / c.projects }),
    requestsPerProject: p.requestsPerProject,
    peakRssMb: p.peakRssMb,
  }));
}

/** The scaling chart: ms per project and requests per project, one line per phase. */
export function scalingChart(points: ScalingPoint[]): string {
  const phases = [...new Set(points.map((p) => p.phase))] as PhaseName[];
  const series = (y: (p: ScalingPoint) => number) =>
    phases.map((phase) => ({
      name: phase,
      points: points.filter((p) => p.phase === phase).map((p) => ({ x: p.projects, y: y(p) })),
    }));
  return renderLineChart(
    [
      { title: 'Wall time per project (ms)', yLabel: 'ms / project', series: series((p) => p.msPerProject) },
      {
        title: 'CPU time of the reconciling process per project (ms)',
        yLabel: 'CPU ms / project',
        series: series((p) => p.cpuMsPerProject ?? 0),
      },
      { title: 'API requests per project', yLabel: 'requests / project', series: series((p) => p.requestsPerProject) },
    ],
    { title: `Cost per project, ${points[0]?.alerts ?? '?'} alert configs each`, xLabel: 'projects (log scale)' },
  );
}
