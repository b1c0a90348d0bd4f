// The static board (GET /board), loaded once: names and neighbours.
import { api, type Board } from '../api/client';

let board: Promise<Board> | null = null;

export function loadBoard(): Promise<Board> {
  board ??= api.board().catch((e: unknown) => {
    board = null;
    throw e;
  });
  return board;
}

export function neighboursOf(b: Board): Map<number, number[]> {
  return new Map(b.provinces.map((p) => [p.plate, p.neighbours]));
}

export function namesOf(b: Board): Map<number, string> {
  return new Map(b.provinces.map((p) => [p.plate, p.name]));
}
