// A small frontend program, type-checked (never run) against the client that
// tests/client/test_generated_client.py generates from the served OpenAPI document: create a
// trial season, submit orders, read the map. The @ts-expect-error lines prove the types bite:
// tsc fails if a mistake there stopped being an error (e.g. a response typed `unknown`).
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Province = components["schemas"]["Province"];
type Order = components["schemas"]["Order"];

export async function trialSeason(baseUrl: string): Promise<number[]> {
  const api = createClient<paths>({ baseUrl });

  const created = await api.POST("/v1/seasons", { body: { memleket: 6 } });
  if (created.error !== undefined) {
    throw new Error(`${created.error.code}: ${created.error.detail}`);
  }
  // the answer is a trial season's (seat, token) or a live season's (admin_token, calendar)
  if (!("seat" in created.data)) throw new Error("asked for a trial season, got a live one");
  const { season_id, seat, token } = created.data;
  const headers = { Authorization: `Bearer ${token}` };

  const me = await api.GET("/v1/seasons/{season_id}/me", {
    params: { path: { season_id } },
    headers,
  });
  if (me.error !== undefined) throw new Error(me.error.detail);
  const memleket: number = me.data.memleket;

  const orders: Order[] = [{ province: memleket, kind: "hold" }];
  const sent = await api.POST("/v1/seasons/{season_id}/orders", {
    params: { path: { season_id }, header: { "Idempotency-Key": `${season_id}-1` } },
    headers,
    body: { orders },
  });
  if (sent.error !== undefined) throw new Error(sent.error.code);
  const accepted: number = sent.data.orders;

  const map = await api.GET("/v1/seasons/{season_id}/map", { params: { path: { season_id } } });
  if (map.error !== undefined) throw new Error(map.error.detail);
  // polling: the English texts, and nothing to parse while the map is unchanged (304)
  const etag: string | undefined = map.response.headers.get("ETag") ?? undefined;
  const polled = await api.GET("/v1/seasons/{season_id}/map", {
    params: { path: { season_id }, query: { lang: "en" }, header: { "If-None-Match": etag } },
  });
  if (polled.response.status === 304) return [];
  const provinces: Record<string, Province> = map.data.provinces;
  const mine = Object.entries(provinces)
    .filter(([, province]) => province.owner === seat)
    .map(([plate]) => Number(plate));
  return accepted > 0 ? mine : [];
}

// A live season's join: a taken memleket's refusal names the free neighbours (issue 20: each
// operation's problems are typed, its codes an enum and their members typed).
export async function joinLive(baseUrl: string, season_id: string): Promise<number[]> {
  const api = createClient<paths>({ baseUrl });
  const joined = await api.POST("/v1/seasons/{season_id}/join", {
    params: { path: { season_id } },
    body: { memleket: 6 },
  });
  if (joined.error === undefined) return [joined.data.seat];
  if (joined.error.code === "memleket_taken") {
    const free: number[] = joined.error.free_neighbours ?? [];
    return free;
  }
  // @ts-expect-error: a join never answers not_your_province (not one of its codes)
  if (joined.error.code === "not_your_province") return [];
  // @ts-expect-error: the free neighbours are plates (numbers), not names
  const names: string[] | undefined = joined.error.free_neighbours;
  void names;
  throw new Error(joined.error.detail);
}

// The event stream's messages (issue 20): each `event` name's payload is a schema, so what an
// EventSource receives is typed once the name is known.
type SeasonEvent =
  paths["/v1/seasons/{season_id}/events"]["get"]["responses"][200]["content"]["text/event-stream"];

export function onStreamMessage(event: string, id: string, data: string): string {
  const message = { event, id, data: JSON.parse(data) } as SeasonEvent;
  switch (message.event) {
    case "ready":
      return `${message.id}: ${message.data.channels} channel(s)`;
    case "divan_report": {
      const divan: number = message.data.divan;
      // @ts-expect-error: a Divan's report names no betrayals (those are their own message)
      void message.data.betrayals;
      return `Divan ${divan}`;
    }
    case "betrayals":
      return message.data.betrayals.map((b) => `${b.traitor}>${b.victim}@${b.province}`).join();
    case "season_over":
      return message.data.han === null ? "no Han" : `Han: seat ${message.data.han}`;
    default:
      return message.event;
  }
}

export async function mistakes(baseUrl: string, season_id: string): Promise<void> {
  const api = createClient<paths>({ baseUrl });
  // @ts-expect-error: "attack" is not an order kind (advance, support, hold)
  const bad: Order = { province: 6, kind: "attack" };
  // @ts-expect-error: a memleket is a plate number, not a string
  await api.POST("/v1/seasons", { body: { memleket: "6" } });
  // @ts-expect-error: no such operation
  await api.GET("/v1/seasons/{season_id}/armies", { params: { path: { season_id } } });
  const map = await api.GET("/v1/seasons/{season_id}/map", { params: { path: { season_id } } });
  // @ts-expect-error: the map's provinces are typed, and have no `name`
  const name: string = map.data?.provinces["6"]?.name ?? "";
  void bad;
  void name;
}
