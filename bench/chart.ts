/** A grouped bar chart as a standalone SVG: one group per scenario, one bar per server. */

export interface BarGroup {
  group: string;
  /** `undefined`: not measured (the server answered wrongly). Every group has the same labels in the same order. */
  bars: { label: string; color: string; value: number | undefined }[];
}

/** The value axis: where a value stands (0 at the bottom, 1 at the top), its grid lines, and a bar's label. */
export interface Axis {
  position(value: number): number;
  ticks: { value: number; label: string; strong?: boolean }[];
  label(value: number): string;
  /** Shown on hover. */
  title(value: number): string;
}

/** Percentages from 0, at least to 110%, with the 100% line drawn darker (the ceiling, or the reference). */
export function percentAxis(groups: BarGroup[]): Axis {
  const max = Math.max(110, ...groups.flatMap((group) => group.bars.map((bar) => bar.value ?? 0)));
  return {
    position: (value) => value / max,
    ticks: [0, 25, 50, 75, 100].map((tick) => ({ value: tick, label: `${tick}%`, strong: tick === 100 })),
    label: (value) => String(Math.round(value)),
    title: (value) => `${value.toFixed(1)}%`,
  };
}

/** A logarithmic axis over powers of ten, for values that span several of them (`unit` follows each tick). */
export function logAxis(groups: BarGroup[], unit: string): Axis {
  const values = groups.flatMap((group) => group.bars.map((bar) => bar.value)).filter((value): value is number => value !== undefined && value > 0);
  // Half the smallest value still shows as a bar.
  const low = Math.floor(Math.log10(Math.min(...values, 10) / 2));
  const high = Math.ceil(Math.log10(Math.max(...values, 100)));
  const ticks = Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i));
  return {
    position: (value) => (Math.log10(Math.max(value, 10 ** low)) - low) / (high - low),
    ticks: ticks.map((tick) => ({ value: tick, label: `${tick.toLocaleString('en')} ${unit}` })),
    label: (value) => (value >= 100 ? Math.round(value).toLocaleString('en') : value.toPrecision(2)),
    title: (value) => `${value.toLocaleString('en', { maximumFractionDigits: 1 })} ${unit}`,
  };
}

export function barChart(
  title: string,
  groups: BarGroup[],
  axis: Axis = percentAxis(groups),
  missing = 'not measured, the server answers that scenario wrongly',
): string {
  const legend = groups[0]?.bars ?? [];
  const barWidth = 22;
  const gap = 28;
  const groupWidth = legend.length * barWidth + gap;
  const plotHeight = 260;
  const left = Math.max(50, 12 + 6.2 * Math.max(...axis.ticks.map((tick) => tick.label.length)));
  const top = 40;
  const y = (value: number) => top + plotHeight - axis.position(value) * plotHeight;
  // Wide enough for the bars, the title (about 7 px a character at 13 px) and a legend of three
  // columns that fit the longest label (about 6.2 px a character at 11 px).
  const column = Math.max(230, Math.ceil(30 + 6.2 * Math.max(0, ...legend.map((bar) => bar.label.length))));
  const width = Math.max(left + groups.length * groupWidth + 20, left + 3 * column, left + Math.ceil(7 * title.length) + 10);
  const legendTop = top + plotHeight + 62;
  const height = legendTop + Math.ceil(legend.length / 3) * 20 + 10;
  const bottom = top + plotHeight;
  const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="13">${escapeXml(title)}</text>`,
  ];
  for (const tick of axis.ticks) {
    parts.push(
      `<line x1="${left}" x2="${width - 10}" y1="${y(tick.value)}" y2="${y(tick.value)}" stroke="${tick.strong === true ? '#555' : '#ddd'}"/>`,
      `<text x="${left - 6}" y="${y(tick.value) + 4}" text-anchor="end">${escapeXml(tick.label)}</text>`,
    );
  }
  groups.forEach((group, groupIndex) => {
    const x0 = left + gap / 2 + groupIndex * groupWidth;
    group.bars.forEach((bar, index) => {
      const x = x0 + index * barWidth;
      if (bar.value === undefined) {
        parts.push(`<text x="${x + barWidth / 2}" y="${bottom - 4}" text-anchor="middle" fill="#c62828">x</text>`);
        return;
      }
      parts.push(
        `<rect x="${x}" y="${y(bar.value)}" width="${barWidth - 3}" height="${bottom - y(bar.value)}" fill="${bar.color}"><title>${escapeXml(bar.label)}: ${escapeXml(axis.title(bar.value))}</title></rect>`,
        `<text x="${x + (barWidth - 3) / 2}" y="${y(bar.value) - 3}" text-anchor="middle" font-size="8">${escapeXml(axis.label(bar.value))}</text>`,
      );
    });
    parts.push(`<text x="${x0 + (legend.length * barWidth) / 2}" y="${top + plotHeight + 16}" text-anchor="middle">${escapeXml(group.group)}</text>`);
  });
  legend.forEach(({ label, color }, index) => {
    const x = left + (index % 3) * column;
    const ly = legendTop + Math.floor(index / 3) * 20;
    parts.push(`<rect x="${x}" y="${ly - 9}" width="10" height="10" fill="${color}"/>`, `<text x="${x + 14}" y="${ly}">${escapeXml(label)}</text>`);
  });
  parts.push(`<text x="${left}" y="${legendTop - 24}" fill="#c62828">x: ${escapeXml(missing)}</text>`, '</svg>');
  return parts.join('\n');
}
