export function stackEnv(
  base: Record<string, string | undefined>,
  port: string,
  extra: Record<string, string>,
  ops: string,
): Record<string, string | undefined>;
