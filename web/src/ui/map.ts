// The map: one SVG group per province (id p-<plate>, data-plate), prepared at build time
// (scripts/build-map.mjs). Owners in colour and, always, as text (seat·units, m<milis>, ★, ▣, H);
// the player's own with a thick outline. Pan by dragging, zoom by wheel, pinch or buttons; a
// tap (a press that did not move) picks a province.
import geo from '../generated/map.json';
import type { MapProvince } from '../api/client';
import { t } from '../i18n';
import { ownerColour, textOn, UNOWNED } from '../logic/palette';
import { h, s } from './dom';

interface Shape {
  plate: number;
  name: string;
  d: string;
  label: number[];
}

export interface MapMarks {
  seat: number | null; // the player's seat, for the outline
  hain: ReadonlySet<number>; // seats wearing the Hain badge
  beyName?: (seat: number) => string; // the owner's name in the province's title
}

/** A line drawn over the map from one province to another (the ops console's battles). */
export interface Arrow {
  from: number;
  to: number;
  kind: 'advance' | 'betrayal' | 'support' | 'void';
  seat: number;
  units: number;
}

export class ProvinceMap {
  readonly root: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly groups = new Map<number, SVGGElement>();
  private readonly labels = new Map<number, SVGTextElement>();
  private readonly shapes = new Map<number, Shape>();
  // the title marks (♛, ♚) above every province, apart from the labels: a label stays the
  // owner·units cue, and the marks never take a tap (pointer-events: none)
  private readonly overlay: SVGGElement = s('g', { class: 'marks', 'aria-hidden': 'true' });
  private view = { x: 0, y: 0, w: geo.width, h: geo.height };
  private pointers = new Map<number, { x: number; y: number }>();
  private moved = 0;
  private tap = false;
  private pinch: number | null = null;

  constructor(private readonly onPick: (plate: number) => void) {
    this.svg = s('svg', {
      viewBox: `0 0 ${geo.width} ${geo.height}`,
      class: 'map',
      role: 'group',
      'aria-label': t('mapLabel'),
    });
    for (const p of geo.provinces as Shape[]) {
      const label = s('text', {
        x: p.label[0] ?? 0,
        y: p.label[1] ?? 0,
        class: 'plabel',
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
      });
      const g = s(
        'g',
        { id: `p-${p.plate}`, 'data-plate': p.plate, class: 'prov' },
        s('title', {}, `${p.plate} ${p.name}`),
        s('path', { d: p.d, fill: UNOWNED }),
        label,
      );
      this.groups.set(p.plate, g);
      this.labels.set(p.plate, label);
      this.shapes.set(p.plate, p);
      this.svg.append(g);
    }
    this.svg.append(this.overlay);
    this.svg.addEventListener('pointerdown', (e) => this.down(e));
    this.svg.addEventListener('pointermove', (e) => this.move(e));
    this.svg.addEventListener('pointerup', (e) => this.up(e));
    this.svg.addEventListener('pointercancel', (e) => {
      this.pointers.delete(e.pointerId);
      if (this.pointers.size === 0) this.apply();
    });
    this.svg.addEventListener('click', (e) => this.click(e));
    this.svg.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    const zoom = (f: number) => () => this.zoom(f, this.view.x + this.view.w / 2, this.view.y + this.view.h / 2);
    this.root = h(
      'div',
      { class: 'mapbox' },
      this.svg,
      h(
        'div',
        { class: 'zoom' },
        h('button', { type: 'button', 'aria-label': t('zoomIn'), onclick: zoom(1 / 1.5) }, '+'),
        h('button', { type: 'button', 'aria-label': t('zoomOut'), onclick: zoom(1.5) }, '−'),
        h('button', { type: 'button', 'aria-label': t('zoomReset'), onclick: () => this.reset() }, '⤢'),
      ),
      h('p', { class: 'credit' }, t('credit')),
    );
  }

  static names(): Map<number, string> {
    return new Map((geo.provinces as Shape[]).map((p) => [p.plate, p.name]));
  }

  /** Owners, units, milis, memleket, sur and Hain as the map view says. */
  update(provinces: Record<string, MapProvince>, marks: MapMarks): void {
    for (const [plate, g] of this.groups) {
      const p = provinces[String(plate)];
      const label = this.labels.get(plate);
      if (!p || !label) continue;
      const fill = ownerColour(p.owner);
      const path = g.querySelector('path');
      path?.setAttribute('fill', fill);
      label.setAttribute('fill', textOn(fill));
      g.classList.toggle('mine', marks.seat !== null && p.owner === marks.seat);
      g.classList.toggle('owned', p.owner !== null);
      g.setAttribute('data-owner', p.owner === null ? '' : String(p.owner));
      let text =
        p.owner === null ? `m${p.milis ?? 0}` : `${p.owner}·${p.units ?? 0}`;
      if (p.memleket_of !== null && p.memleket_of !== undefined) text = `★${text}`;
      if (p.sur) text += '▣';
      if (p.owner !== null && marks.hain.has(p.owner)) text += 'H';
      label.textContent = text;
      // the province's title (its tooltip and accessible name) says whose it is, by name
      const title = g.querySelector('title');
      const shape = this.shapes.get(plate);
      if (title && shape) {
        const owner = p.owner !== null && marks.beyName ? ` · ${marks.beyName(p.owner)}` : '';
        title.textContent = `${shape.plate} ${shape.name}${owner}`;
      }
    }
  }

  /** Lines over the map, province label to province label (the ops console: advances and
   * supports of the battles explained); none: cleared. The labels stay as they are. */
  arrows(list: readonly Arrow[]): void {
    this.svg.querySelector('g.arrows')?.remove();
    if (list.length === 0) return;
    const at = new Map((geo.provinces as Shape[]).map((p) => [p.plate, p.label]));
    const g = s('g', { class: 'arrows', 'aria-hidden': 'true' });
    for (const a of list) {
      const f = at.get(a.from);
      const to = at.get(a.to);
      if (!f || !to) continue;
      g.append(
        s('line', {
          x1: f[0] ?? 0,
          y1: f[1] ?? 0,
          x2: to[0] ?? 0,
          y2: to[1] ?? 0,
          class: `arrow ${a.kind}`,
          'data-from': a.from,
          'data-to': a.to,
          'data-seat': a.seat,
          'data-units': a.units,
        }),
      );
    }
    this.svg.append(g);
  }

  /** Provinces marked with a class of their own (`whatif`: a what-if changed them). */
  mark(cls: string, plates: readonly number[]): void {
    const set = new Set(plates);
    for (const [plate, g] of this.groups) g.classList.toggle(cls, set.has(plate));
  }

  /** The provinces of the battles shown in the report (a dotted red outline). */
  battles(plates: readonly number[]): void {
    const set = new Set(plates);
    for (const [plate, g] of this.groups) g.classList.toggle('battle', set.has(plate));
  }

  /** The titled beys' marks at their memleket: `glyph` drawn above the label, `text` its title. */
  titles(marks: readonly { seat: number; plate: number; glyph: string; text: string }[]): void {
    const at = new Map((geo.provinces as Shape[]).map((p) => [p.plate, p.label]));
    this.overlay.replaceChildren(
      ...marks.map((m) => {
        const [x, y] = at.get(m.plate) ?? [0, 0];
        return s(
          'g',
          { class: 'title-mark', 'data-seat': m.seat, 'data-plate': m.plate },
          s('title', {}, m.text),
          s('text', { x: x ?? 0, y: (y ?? 0) - 20, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, m.glyph),
        );
      }),
    );
  }

  /** The provinces the shown Divan's news card fell on (a dashed outline). */
  news(plates: readonly number[]): void {
    const set = new Set(plates);
    for (const [plate, g] of this.groups) g.classList.toggle('news', set.has(plate));
  }

  /** The picked province and the legal targets; the rest dimmed while targets are shown. */
  highlight(selected: number | null, targets: readonly number[]): void {
    const set = new Set(targets);
    this.svg.classList.toggle('choosing', set.size > 0);
    for (const [plate, g] of this.groups) {
      g.classList.toggle('selected', plate === selected);
      g.classList.toggle('target', set.has(plate));
    }
  }

  /** Centre the view on a province, `factor` times closer than the whole map. */
  focus(plate: number, factor: number): void {
    const p = (geo.provinces as Shape[]).find((q) => q.plate === plate);
    if (!p) return;
    const w = geo.width / factor;
    const hh = geo.height / factor;
    this.view = { x: (p.label[0] ?? 0) - w / 2, y: (p.label[1] ?? 0) - hh / 2, w, h: hh };
    this.apply();
  }

  private apply(): void {
    this.foldDrag();
    const v = this.view;
    this.svg.setAttribute('viewBox', `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  // A drag moves the drawn map as a whole by a CSS transform (the compositor's work: nothing
  // is drawn again while the finger moves; docs/web.md, bench-web); when the drag ends, or a
  // zoom comes, the offset becomes part of the view.
  private drag = { x: 0, y: 0 };

  private foldDrag(): void {
    if (this.drag.x === 0 && this.drag.y === 0) return;
    const k = this.scale();
    this.view.x -= this.drag.x * k;
    this.view.y -= this.drag.y * k;
    this.drag = { x: 0, y: 0 };
    this.svg.style.transform = '';
    this.svg.classList.remove('dragging');
  }

  private reset(): void {
    this.view = { x: 0, y: 0, w: geo.width, h: geo.height };
    this.apply();
  }

  private zoom(factor: number, cx: number, cy: number): void {
    const w = Math.min(geo.width * 1.2, Math.max(geo.width / 12, this.view.w * factor));
    const f = w / this.view.w;
    this.view = {
      x: cx - (cx - this.view.x) * f,
      y: cy - (cy - this.view.y) * f,
      w,
      h: this.view.h * f,
    };
    this.apply();
  }

  private toMap(clientX: number, clientY: number): { x: number; y: number } {
    const r = this.svg.getBoundingClientRect();
    // preserveAspectRatio meet: one scale for both axes, the drawing centred
    const k = Math.max(this.view.w / r.width, this.view.h / r.height);
    const ox = (r.width * k - this.view.w) / 2;
    const oy = (r.height * k - this.view.h) / 2;
    return { x: this.view.x - ox + (clientX - r.left) * k, y: this.view.y - oy + (clientY - r.top) * k };
  }

  private scale(): number {
    const r = this.svg.getBoundingClientRect();
    return Math.max(this.view.w / (r.width || 1), this.view.h / (r.height || 1));
  }

  private down(e: PointerEvent): void {
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this.pointers.size === 1) this.moved = 0;
    this.pinch = null;
  }

  private move(e: PointerEvent): void {
    const last = this.pointers.get(e.pointerId);
    if (!last) return;
    const dx = e.clientX - last.x;
    const dy = e.clientY - last.y;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      if (!a || !b) return;
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      this.apply(); // a drag before the second finger came: into the view first
      if (this.pinch !== null && dist > 0) {
        const c = this.toMap((a.x + b.x) / 2, (a.y + b.y) / 2);
        this.zoom(this.pinch / dist, c.x, c.y);
      }
      this.pinch = dist;
      this.moved += 100;
      return;
    }
    this.moved += Math.abs(dx) + Math.abs(dy);
    if (this.moved > 6) {
      if (!this.svg.hasPointerCapture(e.pointerId)) this.svg.setPointerCapture(e.pointerId);
      if (this.drag.x === 0 && this.drag.y === 0) this.svg.classList.add('dragging'); // no hit tests per move
      this.drag = { x: this.drag.x + dx, y: this.drag.y + dy };
      this.svg.style.transform = `translate(${this.drag.x}px, ${this.drag.y}px)`;
    }
  }

  private up(e: PointerEvent): void {
    this.tap = this.pointers.size === 1 && this.moved <= 6;
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 0) this.apply();
  }

  /** A pick is a click (a mouse's, or the one a phone sends after a tap) that did not drag:
   * acting on the click, not on pointerup, means no click lands afterwards on what the pick
   * drew where the finger was. */
  private click(e: MouseEvent): void {
    if (!this.tap) return;
    this.tap = false;
    const target = (e.target as Element | null)?.closest('g.prov');
    const plate = Number(target?.getAttribute('data-plate'));
    if (plate) this.onPick(plate);
  }

  private wheel(e: WheelEvent): void {
    e.preventDefault();
    const c = this.toMap(e.clientX, e.clientY);
    this.zoom(e.deltaY > 0 ? 1.2 : 1 / 1.2, c.x, c.y);
  }
}
