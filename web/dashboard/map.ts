/**
 * A map without tiles (tiles need the internet): the store, the delivery address and the
 * driver drawn on an SVG in their true relative positions (equirectangular, scaled to fit).
 */
import { svg } from './dom';

export interface Point {
  lat: number;
  lng: number;
}

const WIDTH = 480;
const HEIGHT = 320;
const MARGIN = 40;

export class TrackingMap {
  readonly element = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'map', role: 'img', 'aria-label': 'Map of the delivery' });
  private readonly route = svg('line', { class: 'route' });
  private readonly trail = svg('polyline', { class: 'trail' });
  private readonly storeMarker = marker('store', 'Store');
  private readonly homeMarker = marker('home', 'Delivery address');
  private readonly driverMarker = marker('driver', 'Driver');
  private readonly positions: Point[] = [];
  private driver: Point | undefined;

  constructor(
    private readonly store: Point,
    private readonly home: Point,
  ) {
    this.element.append(
      svg('rect', { class: 'ground', width: WIDTH, height: HEIGHT }),
      this.route,
      this.trail,
      this.storeMarker,
      this.homeMarker,
      this.driverMarker,
    );
    this.driverMarker.setAttribute('visibility', 'hidden');
    this.draw();
  }

  moveDriver(point: Point): void {
    this.driver = point;
    this.positions.push(point);
    this.draw();
  }

  private draw(): void {
    const points = [this.store, this.home, ...this.positions];
    const midLat = (Math.min(...points.map((p) => p.lat)) + Math.max(...points.map((p) => p.lat))) / 2;
    const squeeze = Math.cos((midLat * Math.PI) / 180); // a degree of longitude is shorter away from the equator
    const xs = points.map((p) => p.lng * squeeze);
    const ys = points.map((p) => p.lat);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const span = Math.max(maxX - minX, maxY - minY, 1e-4);
    const scale = Math.min((WIDTH - 2 * MARGIN) / Math.max(maxX - minX, span / 4), (HEIGHT - 2 * MARGIN) / Math.max(maxY - minY, span / 4));
    const cx = (minX + maxX) / 2;
    const cy = (minY + maxY) / 2;
    const project = (p: Point): [number, number] => [WIDTH / 2 + (p.lng * squeeze - cx) * scale, HEIGHT / 2 - (p.lat - cy) * scale];

    const [sx, sy] = project(this.store);
    const [hx, hy] = project(this.home);
    place(this.storeMarker, sx, sy, this.store);
    place(this.homeMarker, hx, hy, this.home);
    setAll(this.route, { x1: sx, y1: sy, x2: hx, y2: hy });
    this.trail.setAttribute('points', this.positions.map((p) => project(p).join(',')).join(' '));
    if (this.driver) {
      const [dx, dy] = project(this.driver);
      place(this.driverMarker, dx, dy, this.driver);
      this.driverMarker.setAttribute('visibility', 'visible');
    }
  }
}

function marker(role: string, title: string): SVGGElement {
  return svg(
    'g',
    { class: `marker ${role}`, 'data-role': role },
    svg('title', {}, title),
    svg('circle', { r: role === 'driver' ? 9 : 11 }),
    svg('text', { y: 4, 'text-anchor': 'middle' }, role === 'store' ? 'S' : role === 'home' ? 'H' : 'D'),
  );
}

function place(element: SVGGElement, x: number, y: number, point: Point): void {
  element.setAttribute('transform', `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
  element.setAttribute('data-lat', String(point.lat));
  element.setAttribute('data-lng', String(point.lng));
}

function setAll(element: SVGElement, attributes: Record<string, number>): void {
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value.toFixed(1));
}
