// The sandbox's menu (issue 27) through real HTTP: a POS made with createReceiver receives and
// verifies the menu change webhooks; every REST answer is checked by the toolkit (checkAnswer:
// validatePayload / classifyProblem), every delivery by verifyWebhook and validatePayload
// (checkSandboxLogs), and every submission the sandbox accepts passes lintMenu.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSandboxLogs, createSandbox, SandboxError, pkg, restClient, startKitPos } from './sandbox-kit.mjs';

/** A full submission: `n` products in one category, sharing the SIZE group. */
function menu(n, { category = 'Burgers' } = {}) {
  const size = { remoteCode: 'SIZE', name: 'Size', min: 1, max: 1, type: 'radio', options: [
    { remoteCode: 'SIZE-S', name: 'Small', price: 0, isDefault: true, maxPerOrder: 1 },
    { remoteCode: 'SIZE-L', name: 'Large', price: 1.5, isDefault: false, maxPerOrder: 1 },
  ] };
  const products = Array.from({ length: n }, (_, i) => ({
    remoteCode: `BURGER-${i}`, name: `Burger ${i}`, description: 'Made to order', price: 8 + i, tax: 0.18, maxPerOrder: 10,
    image: `https://cdn.example.com/menu/burger-${i}.png`, modifierGroups: [size],
  }));
  return { categories: [{ remoteCode: 'BURGERS', name: category, position: 0, products }] };
}

const byRemote = (data) => Object.fromEntries(data.categories.flatMap((c) => c.products).map((p) => [p.remoteCode, p]));

test('a POS from an empty catalog: upload, overrides, asynchronous changes and their webhooks', async (t) => {
  const pos = await startKitPos(t);
  const sb = await createSandbox({ clock: 'manual', seed: 27, pos: pos.url });
  t.after(() => sb.close());
  pos.attach(sb.secret);
  const api = restClient(sb);

  assert.deepEqual((await api.get('/api/v1/menu/stores/STORE-1')).data.categories, [], 'an empty catalog');
  const full = menu(5);
  assert.ok(pkg.lintMenu(JSON.stringify(full)).ok, 'the submission passes lintMenu');
  const put = await api.call('PUT', '/api/v1/menu', { body: full });
  assert.equal(put.status, 200);
  const read1 = (await api.get('/api/v1/menu/stores/STORE-1')).data;
  const products = byRemote(read1);
  assert.equal(Object.keys(products).length, 5);
  assert.match(products['BURGER-0'].code, /^prd_/);
  assert.match(products['BURGER-0'].image, /\.webp$/);
  assert.equal(products['BURGER-0'].modifierGroups[0].code, products['BURGER-4'].modifierGroups[0].code, 'the shared group');

  // Availability off in one store: 202, Pending, then Applied after advance(), with the webhook.
  const off = await api.call('PUT', '/api/v1/menu/availability', { body: { stores: ['STORE-1'], items: [{ targetEntity: 'product', targetCode: 'BURGER-1', available: false }] } });
  assert.equal(off.status, 202);
  const changeId = off.data.changeId;
  assert.equal((await api.get(`/api/v1/menu/changes/${changeId}`)).data.status, 'Pending');
  await sb.advance(sb.assumptions.menuChangeDelaySeconds);
  assert.equal(pos.menuChanges.length, 1, 'the POS received the completion webhook');
  assert.equal(pos.menuChanges[0].changeKey, changeId);
  assert.equal(pos.menuChanges[0].status, 'applied');
  const applied = (await api.get(`/api/v1/menu/changes/${changeId}`)).data;
  assert.equal(applied.status, 'Applied');
  const store1 = byRemote((await api.get('/api/v1/menu/stores/STORE-1')).data);
  assert.equal(store1['BURGER-1'].orderable, false);
  assert.equal(store1['BURGER-1'].overrides[0].type, 'unavailable');
  assert.equal(byRemote((await api.get('/api/v1/menu/stores/STORE-2')).data)['BURGER-1'].orderable, true);
  assert.deepEqual(sb.storeMenu('STORE-1'), (await api.get('/api/v1/menu/stores/STORE-1')).data, 'the control reads what the API answers');

  // A batch with an unknown target: partial.
  const batch = await api.call('POST', '/api/v1/menu/changes', { body: { stores: ['STORE-1'], changes: [
    { targetEntity: 'product', targetCode: 'BURGER-2', scope: 'store', set: { price: 7 } },
    { targetEntity: 'product', targetCode: 'NOT-THERE', scope: 'store', set: { price: 7 } },
  ] } });
  assert.equal(batch.status, 202);
  await sb.advance(60);
  assert.equal(pos.menuChanges.at(-1).status, 'partial');
  assert.equal(pos.menuChanges.at(-1).results.find((r) => !r.applied).errorCode, 'UNKNOWN_TARGET');

  // Not shipped: available in brand scope, a category in store scope.
  const code = products['BURGER-0'].code;
  const brandAvailable = await api.call('PATCH', `/api/v1/menu/products/${code}`, { body: { scope: 'brand', set: { available: false } } });
  assert.equal(brandAvailable.status, 422);
  const storeCategory = await api.call('PATCH', `/api/v1/menu/categories/${read1.categories[0].code}`, { body: { scope: 'store', stores: ['STORE-1'], set: { name: 'X' } } });
  assert.equal(storeCategory.status, 422);

  // Preview changes nothing; a large deactivation is refused, then confirmed.
  const before = sb.storeMenu('STORE-2');
  const preview = await api.call('POST', '/api/v1/menu/preview', { body: menu(1) });
  assert.equal(preview.status, 200);
  assert.equal(preview.data.deactivated.products, 4);
  assert.deepEqual(sb.storeMenu('STORE-2'), before, 'preview applies nothing');
  const refused = await api.call('PUT', '/api/v1/menu', { body: menu(1) });
  assert.equal(refused.status, 409);
  assert.match(refused.json.detail, /4 of 5/);
  const confirmed = await api.call('PUT', '/api/v1/menu?confirmLargeDeactivation=true', { body: menu(1) });
  assert.equal(confirmed.status, 200);
  assert.deepEqual(Object.keys(byRemote(sb.storeMenu('STORE-2'))), ['BURGER-0']);

  // A local product: origin store, in its store only.
  const local = await api.call('POST', '/api/v1/menu/stores/STORE-1/products', { body: { code: 'HOUSE-1', name: 'House special', price: 4.5, categoryCode: read1.categories[0].code } });
  assert.equal(local.status, 202);
  await sb.advance(60);
  assert.equal(byRemote(sb.storeMenu('STORE-1'))['HOUSE-1'].origin, 'store');
  assert.equal(byRemote(sb.storeMenu('STORE-2'))['HOUSE-1'], undefined);

  // Capabilities; failures injected for a store; the controls over HTTP.
  const caps = (await api.get('/api/v1/menu/capabilities')).data.capabilities;
  assert.ok(caps.some((c) => c.entity === 'modifierOption' && c.field === 'price' && c.scope === 'store' && c.pendingCustomerRollout));
  sb.failMenuChanges('STORE-2');
  await api.call('PUT', '/api/v1/menu/availability', { body: { stores: ['STORE-2'], items: [{ targetEntity: 'product', targetCode: 'BURGER-0', available: false }] } });
  await sb.advance(60);
  assert.equal(pos.menuChanges.at(-1).status, 'failed');
  assert.equal(pos.menuChanges.at(-1).results[0].errorCode, 'STORE_UNAVAILABLE');
  assert.throws(() => sb.failMenuChanges('STORE-9'), (e) => e instanceof SandboxError && e.code === 'NOT_FOUND');
  assert.throws(() => sb.seedMenu({ categories: 'nope' }), (e) => e instanceof SandboxError);
  const http = async (method, path, body) => {
    const res = await fetch(sb.url + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };
  assert.equal((await http('POST', '/_sandbox/menu/fail', { store: 'STORE-2', fail: false })).status, 200);
  const seeded = await http('PUT', '/_sandbox/menu', menu(3));
  assert.equal(seeded.status, 200);
  assert.equal(seeded.json.created, 2 + 0, `${JSON.stringify(seeded.json)}`);
  assert.equal((await http('GET', '/_sandbox/menu/stores/STORE-2')).json.categories[0].products.length, 3);
  assert.ok(Object.keys((await http('GET', '/_sandbox/menu')).json.catalogs).length === 1);
  checkSandboxLogs(sb);
});
