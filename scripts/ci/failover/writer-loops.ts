/**
 * `writers` concurrent loops, each writing one item after another (its n-th item by `writeOne(writer, n)`,
 * true when acknowledged) until stopped; every item's id lands in `acknowledged` (with its time) or `gaveUp`.
 */
export function startWriterLoops(
  writers: number,
  writeOne: (writer: number, n: number) => Promise<{ id: string; acknowledged: boolean }>,
  log: { acknowledged: string[]; acknowledgedAt: number[]; gaveUp: string[] },
): { stop(): Promise<void> } {
  let writing = true;
  const loop = async (writer: number) => {
    for (let n = 0; writing; n += 1) {
      const { id, acknowledged } = await writeOne(writer, n);
      if (acknowledged) {
        log.acknowledged.push(id);
        log.acknowledgedAt.push(Date.now());
      } else {
        log.gaveUp.push(id);
      }
    }
  };
  const running = Array.from({ length: writers }, (_, writer) => loop(writer));
  return {
    async stop() {
      writing = false;
      await Promise.allSettled(running);
    },
  };
}
