// Sounds synthesised with Web Audio: nothing is downloaded. Off until the player turns it on
// (browsers only allow audio after a gesture anyway); the choice is remembered.
import { store } from "./util.js";

class Sound {
  constructor() {
    this.enabled = store("sound") ?? false;
    this.volume = Number(store("volume") ?? 0.7); // 0..1, the slider in MENU
    this.ctx = null;
    this.spinNode = null;
  }

  toggle() {
    this.enabled = !this.enabled;
    store("sound", this.enabled);
    if (this.enabled) this.blip(660, 0.08, "triangle", 0.15);
    else this.stopSpin();
    return this.enabled;
  }

  /** Set the volume (0..1); remembered like the on/off choice. */
  setVolume(v) {
    this.volume = Math.min(1, Math.max(0, Number(v) || 0));
    store("volume", this.volume);
    if (this.master) this.master.gain.value = 0.35 * this.volume;
    if (this.enabled) this.blip(660, 0.06, "triangle", 0.15);
  }

  audio() {
    if (!this.enabled) return null;
    if (!this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      this.ctx = new AC();
      this.master = this.ctx.createGain();
      this.master.gain.value = 0.35 * this.volume;
      this.master.connect(this.ctx.destination);
    }
    if (this.ctx.state === "suspended") this.ctx.resume();
    return this.ctx;
  }

  blip(freq, dur = 0.1, type = "sine", vol = 0.3, when = 0) {
    const ctx = this.audio();
    if (!ctx) return;
    const t = ctx.currentTime + when;
    const o = ctx.createOscillator();
    const g = ctx.createGain();
    o.type = type;
    o.frequency.setValueAtTime(freq, t);
    g.gain.setValueAtTime(0.0001, t);
    g.gain.exponentialRampToValueAtTime(vol, t + 0.01);
    g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
    o.connect(g).connect(this.master);
    o.start(t);
    o.stop(t + dur + 0.02);
  }

  spinStart() {
    const ctx = this.audio();
    if (!ctx) return;
    this.stopSpin();
    const o = ctx.createOscillator();
    const lfo = ctx.createOscillator();
    const lg = ctx.createGain();
    const g = ctx.createGain();
    o.type = "sawtooth";
    o.frequency.value = 90;
    lfo.frequency.value = 14;
    lg.gain.value = 30;
    lfo.connect(lg).connect(o.frequency);
    g.gain.value = 0.05;
    o.connect(g).connect(this.master);
    o.start();
    lfo.start();
    this.spinNode = { o, lfo, g };
  }

  stopSpin() {
    if (!this.spinNode) return;
    const { o, lfo } = this.spinNode;
    try {
      o.stop();
      lfo.stop();
    } catch {
      /* already stopped */
    }
    this.spinNode = null;
  }

  reelStop(i) {
    this.blip(180 - i * 10, 0.09, "square", 0.18);
  }

  nudge() {
    this.blip(520, 0.07, "triangle", 0.2);
    this.blip(780, 0.09, "triangle", 0.2, 0.07);
  }

  win(level = 1) {
    const notes = [523, 659, 784, 1047, 1319];
    const n = Math.min(notes.length, 2 + level);
    notes.slice(0, n).forEach((f, i) => this.blip(f, 0.18, "triangle", 0.25, i * 0.09));
  }

  tick() {
    this.blip(1200, 0.03, "square", 0.05);
  }

  bigWin() {
    [523, 659, 784, 1047, 784, 1047, 1319, 1568].forEach((f, i) =>
      this.blip(f, 0.22, "triangle", 0.28, i * 0.12),
    );
  }

  lose() {
    this.blip(220, 0.25, "sine", 0.2);
    this.blip(165, 0.35, "sine", 0.2, 0.18);
  }

  click() {
    this.blip(900, 0.04, "square", 0.08);
  }
}

export const sound = new Sound();
