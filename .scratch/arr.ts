import postgres from 'postgres';
const sql = postgres('postgres://postgres@127.0.0.1:5432/holdfast_bench', { max: 1 });
for (let i = 0; i < 6; i++) {
  const b = performance.now();
  const rows = await sql.unsafe(`select agent, step, buckets::text as b, counts::text as c from lat_arr where (grain='day' and bucket_start >= now() - interval '29 days') or (grain='hour' and bucket_start >= now() - interval '47 hours')`, [], { prepare: true });
  const t1 = performance.now();
  const hist = new Map<string, Map<number, number>>();
  for (const row of rows) {
    const key = row.agent + '/' + row.step;
    let h = hist.get(key); if (!h) { h = new Map(); hist.set(key, h); }
    const bs = (row.b as string).slice(1, -1).split(','); const cs = (row.c as string).slice(1, -1).split(',');
    for (let j = 0; j < bs.length; j++) { const k = Number(bs[j]); h.set(k, (h.get(k) ?? 0) + Number(cs[j])); }
  }
  console.log(rows.length, (t1 - b).toFixed(1), (performance.now() - t1).toFixed(1));
}
await sql.end();
