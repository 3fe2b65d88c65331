/* Demo catalogue for local development and the staging environment. */

DELETE FROM order_items;
DELETE FROM products;
DELETE FROM categories;

INSERT INTO categories (id, parent_id, name, slug) VALUES
    (1, NULL, 'Books', 'books'),
    (2, 1, 'Science Fiction', 'books-scifi'),
    (3, 1, 'Cookbooks', 'books-cooking'),
    (4, NULL, 'Kitchen', 'kitchen'),
    (5, 4, 'Knives', 'kitchen-knives'),
    (6, 4, 'Cookware', 'kitchen-cookware'),
    (7, NULL, 'Garden', 'garden');

INSERT INTO products (id, category_id, sku, name, price, stock, active) VALUES
    (101, 2, 'BK-0001', 'The Left Hand of Darkness', 12.99, 40, TRUE),
    (102, 2, 'BK-0002', 'Hitchhiker''s Guide to the Galaxy', 9.50, 120, TRUE),
    (103, 2, 'BK-0003', 'Solaris', 11.00, 0, FALSE),
    (104, 3, 'BK-0101', 'Salt, Fat, Acid, Heat', 32.00, 15, TRUE),
    (105, 3, 'BK-0102', 'The Food Lab', 49.95, 8, TRUE),
    (201, 5, 'KT-1001', 'Chef''s Knife 20cm', 89.00, 25, TRUE),
    (202, 5, 'KT-1002', 'Paring Knife 9cm', 29.00, 60, TRUE),
    (203, 6, 'KT-2001', 'Cast Iron Skillet 26cm', 54.90, 12, TRUE),
    (204, 6, 'KT-2002', 'Dutch Oven 5.5l', 179.00, 3, TRUE),
    (301, 7, 'GD-0001', 'Pruning Shears', 24.50, 33, TRUE),
    (302, 7, 'GD-0002', 'Watering Can 10l', 19.99, 0, TRUE);

-- Nothing in stock means not sellable in the demo shop.
UPDATE products SET active = FALSE WHERE stock = 0;
