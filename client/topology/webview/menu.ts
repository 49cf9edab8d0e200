/**
 * The context menu of an element: a list of menu items, opened at the
 * pointer or at the element, driven by the keyboard as VS Code's menus are
 * (arrows, Home/End, Enter, Escape); it returns focus where it came from.
 */
export interface MenuItem {
  label: string;
  /** Why the item cannot be used now; the item is shown, disabled, with this as its tooltip. */
  disabled?: string;
  run(): void;
}

export class ContextMenu {
  private returnFocus: HTMLElement | undefined;

  constructor(private readonly root: HTMLElement) {
    root.setAttribute('role', 'menu');
    root.hidden = true;
    root.addEventListener('keydown', (event) => this.onKey(event));
    document.addEventListener('pointerdown', (event) => {
      if (!this.root.hidden && !this.root.contains(event.target as Node)) this.close();
    });
    window.addEventListener('blur', () => this.close());
  }

  open(items: readonly MenuItem[], x: number, y: number, returnFocus?: HTMLElement): void {
    this.returnFocus = returnFocus ?? (document.activeElement as HTMLElement | null) ?? undefined;
    const buttons = items.map((item) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.setAttribute('role', 'menuitem');
      button.textContent = item.label;
      button.tabIndex = -1;
      if (item.disabled !== undefined) {
        button.setAttribute('aria-disabled', 'true');
        button.title = item.disabled;
      }
      button.addEventListener('click', () => {
        if (item.disabled !== undefined) return;
        this.close();
        item.run();
      });
      return button;
    });
    this.root.replaceChildren(...buttons);
    this.root.hidden = false;
    // Kept inside the window.
    const box = this.root.getBoundingClientRect();
    this.root.style.left = `${Math.max(0, Math.min(x, window.innerWidth - box.width - 4))}px`;
    this.root.style.top = `${Math.max(0, Math.min(y, window.innerHeight - box.height - 4))}px`;
    buttons.find((b) => !b.hasAttribute('aria-disabled'))?.focus();
  }

  close(): void {
    if (this.root.hidden) return;
    this.root.hidden = true;
    this.root.replaceChildren();
    this.returnFocus?.focus();
    this.returnFocus = undefined;
  }

  private onKey(event: KeyboardEvent): void {
    const items = [...this.root.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const focus = (i: number): void => {
      items[(i + items.length) % items.length]?.focus();
      event.preventDefault();
    };
    if (event.key === 'ArrowDown') focus(at + 1);
    else if (event.key === 'ArrowUp') focus(at - 1);
    else if (event.key === 'Home') focus(0);
    else if (event.key === 'End') focus(items.length - 1);
    else if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      this.close();
    }
  }
}
